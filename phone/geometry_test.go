package phone_test

import (
	"image"
	"testing"

	"github.com/openlolo/openlolo/phone"
)

func TestGeometrySized(t *testing.T) {
	g := phone.Geometry{Width: 1080, Height: 2400, Epoch: 3}
	for _, tc := range []struct {
		size        image.Point
		want        phone.Geometry
		wantChanged bool
	}{
		{image.Pt(1080, 2400), g, false},
		{image.Pt(2400, 1080), phone.Geometry{Width: 2400, Height: 1080, Epoch: 4}, true},
		{image.Pt(1080, 2300), phone.Geometry{Width: 1080, Height: 2300, Epoch: 4}, true},
	} {
		if got, changed := g.Sized(tc.size); got != tc.want || changed != tc.wantChanged {
			t.Errorf("Sized(%v) = %+v, %v; want %+v, %v", tc.size, got, changed, tc.want, tc.wantChanged)
		}
	}
	if got, changed := (phone.Geometry{}).Sized(image.Pt(16, 32)); got != (phone.Geometry{Width: 16, Height: 32, Epoch: 1}) || !changed {
		t.Errorf("the first size = %+v, %v; want epoch 1", got, changed)
	}
}
