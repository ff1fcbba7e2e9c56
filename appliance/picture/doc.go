// Package picture holds the box's one way to turn a phone's frame into a
// picture to send: fit (the size a picture takes in a box, keeping its
// shape, never enlarged), downscale (integer box averaging, then bilinear
// sampling in fixed point, on up to GOMAXPROCS goroutines), encode (JPEG
// through libjpeg-turbo when built with the turbojpeg tag and cgo, the
// standard library's image/jpeg otherwise; PNG through image/png) and the
// per-frame cache that encodes one frame once per way it is asked for
// however many callers ask.
//
// Screenshots (appliance/mcp), the Activity thumbnails and the full
// page's stitched image (appliance/control), the box page's live view and
// still picture (appliance/owner, through control) and the OCR engine's
// input all use it. It knows nothing of phones: a [Frame] is a picture
// with the identity that makes caching it safe.
package picture
