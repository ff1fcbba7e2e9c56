package ddi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// Service is the image mounter's name in the RSD catalogue.
const Service = "com.apple.mobile.mobile_image_mounter.shim.remote"

// Personalized is the image type of the iOS 17+ developer disk image.
const Personalized = "Personalized"

// RefusedError is a command the phone answered with an Error.
type RefusedError struct {
	Command string // e.g. "MountImage"
	Name    string // the phone's error, e.g. "DeveloperModeIsNotEnabled"
	Detail  string // DetailedError, when given
}

func (e *RefusedError) Error() string {
	s := fmt.Sprintf("ddi: %s: the phone refused: %s", e.Command, e.Name)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// ErrMalformed is wrapped when a reply lacks what its command returns.
var ErrMalformed = errors.New("ddi: malformed reply")

// Mounter is one connection to the image mounter. It is not safe for
// concurrent use; the phone answers one command at a time.
type Mounter struct {
	conn net.Conn
}

// Open checks in with the mounter on conn (a tunnel TCP connection to the
// port RSD lists for [Service]).
func Open(ctx context.Context, conn net.Conn) (*Mounter, error) {
	if err := lockdown.NewClient(conn, "").Checkin(ctx); err != nil {
		return nil, fmt.Errorf("ddi: check in: %w", err)
	}
	return &Mounter{conn: conn}, nil
}

// Close says goodbye (Hangup) and closes the connection.
func (m *Mounter) Close() error {
	m.conn.SetWriteDeadline(time.Now().Add(time.Second))
	lockdown.WriteMessage(m.conn, plist.Dict{{Key: "Command", Value: "Hangup"}})
	return m.conn.Close()
}

// command sends req and reads the reply; an Error reply is a
// *RefusedError.
func (m *Mounter) command(ctx context.Context, req plist.Dict) (plist.Dict, error) {
	name := req.String("Command")
	stop := context.AfterFunc(ctx, func() { m.conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if stop() {
			m.conn.SetDeadline(time.Time{})
		}
	}()
	err := lockdown.WriteMessage(m.conn, req)
	var reply plist.Dict
	if err == nil {
		reply, err = lockdown.ReadMessage(m.conn)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("ddi: %s: %w", name, ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("ddi: %s: %w", name, err)
	}
	if e := reply.String("Error"); e != "" {
		return reply, &RefusedError{Command: name, Name: e, Detail: reply.String("DetailedError")}
	}
	return reply, nil
}

// Mounted returns the signatures of the mounted images of imageType
// (none: nothing is mounted).
func (m *Mounter) Mounted(ctx context.Context, imageType string) ([][]byte, error) {
	r, err := m.command(ctx, plist.Dict{{Key: "Command", Value: "LookupImage"}, {Key: "ImageType", Value: imageType}})
	if err != nil {
		return nil, err
	}
	v, ok := r.Get("ImageSignature")
	if !ok {
		return nil, fmt.Errorf("%w: LookupImage without ImageSignature", ErrMalformed)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: LookupImage's ImageSignature is %T", ErrMalformed, v)
	}
	var sigs [][]byte
	for _, x := range list {
		b, ok := x.([]byte)
		if !ok {
			return nil, fmt.Errorf("%w: LookupImage signature is %T", ErrMalformed, x)
		}
		sigs = append(sigs, b)
	}
	return sigs, nil
}

// DeveloperMode reports whether Developer Mode is on, as the mounter sees
// it.
func (m *Mounter) DeveloperMode(ctx context.Context) (bool, error) {
	r, err := m.command(ctx, plist.Dict{{Key: "Command", Value: "QueryDeveloperModeStatus"}})
	if err != nil {
		return false, err
	}
	v, ok := r.Get("DeveloperModeStatus")
	on, isBool := v.(bool)
	if !ok || !isBool {
		return false, fmt.Errorf("%w: QueryDeveloperModeStatus without a bool", ErrMalformed)
	}
	return on, nil
}
