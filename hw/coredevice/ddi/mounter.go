package ddi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
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

// personalizedType names the disk image in personalization commands.
const personalizedType = "DeveloperDiskImage"

// Identifiers asks the phone for its chip's personalization identifiers
// (ECID is not among them; the caller fills it in).
func (m *Mounter) Identifiers(ctx context.Context) (Identifiers, error) {
	r, err := m.command(ctx, plist.Dict{{Key: "Command", Value: "QueryPersonalizationIdentifiers"}, {Key: "PersonalizedImageType", Value: personalizedType}})
	if err != nil {
		return Identifiers{}, err
	}
	p := r.Dict("PersonalizationIdentifiers")
	var ids Identifiers
	var okb, okc bool
	ids.BoardID, okb = p.Uint("BoardId")
	ids.ChipID, okc = p.Uint("ChipID")
	ids.SecurityDomain, _ = p.Uint("SecurityDomain")
	if !okb || !okc {
		return Identifiers{}, fmt.Errorf("%w: QueryPersonalizationIdentifiers without BoardId and ChipID", ErrMalformed)
	}
	for _, e := range p {
		if len(e.Key) > 3 && e.Key[:3] == "Ap," {
			ids.Extra = append(ids.Extra, e)
		}
	}
	return ids, nil
}

// Nonce returns the number the phone picked at boot for this boot's
// personalization.
func (m *Mounter) Nonce(ctx context.Context) ([]byte, error) {
	r, err := m.command(ctx, plist.Dict{{Key: "Command", Value: "QueryNonce"}, {Key: "HostProcessName", Value: "CoreDeviceService"}, {Key: "PersonalizedImageType", Value: personalizedType}})
	if err != nil {
		return nil, err
	}
	n := r.Data("PersonalizationNonce")
	if len(n) == 0 {
		return nil, fmt.Errorf("%w: QueryNonce without PersonalizationNonce", ErrMalformed)
	}
	return n, nil
}

// StoredTicket returns a ticket the phone still holds for the image with
// digest (mounted before in this boot), so no signing is needed. A phone
// without one refuses; after a refusal open a new Mounter.
func (m *Mounter) StoredTicket(ctx context.Context, digest []byte) ([]byte, error) {
	r, err := m.command(ctx, plist.Dict{
		{Key: "Command", Value: "QueryPersonalizationManifest"}, {Key: "PersonalizedImageType", Value: personalizedType},
		{Key: "ImageType", Value: personalizedType}, {Key: "ImageSignature", Value: digest},
	})
	if err != nil {
		return nil, err
	}
	t := r.Data("ImageSignature")
	if len(t) == 0 {
		return nil, fmt.Errorf("%w: QueryPersonalizationManifest without ImageSignature", ErrMalformed)
	}
	return t, nil
}

// expect reads a reply and checks its Status.
func (m *Mounter) expect(ctx context.Context, cmd, status string) error {
	stop := context.AfterFunc(ctx, func() { m.conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if stop() {
			m.conn.SetDeadline(time.Time{})
		}
	}()
	r, err := lockdown.ReadMessage(m.conn)
	if ctx.Err() != nil {
		return fmt.Errorf("ddi: %s: %w", cmd, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("ddi: %s: %w", cmd, err)
	}
	if e := r.String("Error"); e != "" {
		return &RefusedError{Command: cmd, Name: e, Detail: r.String("DetailedError")}
	}
	if s := r.String("Status"); s != status {
		return fmt.Errorf("%w: %s answered Status %q, want %q", ErrMalformed, cmd, s, status)
	}
	return nil
}

// Upload sends the image (size bytes from r) with its ticket.
func (m *Mounter) Upload(ctx context.Context, ticket []byte, r io.Reader, size int64) error {
	r0, err := m.command(ctx, plist.Dict{
		{Key: "Command", Value: "ReceiveBytes"}, {Key: "ImageSignature", Value: ticket},
		{Key: "ImageSize", Value: uint64(size)}, {Key: "ImageType", Value: Personalized},
	})
	if err != nil {
		return err
	}
	if s := r0.String("Status"); s != "ReceiveBytesAck" {
		return fmt.Errorf("%w: ReceiveBytes answered Status %q, want ReceiveBytesAck", ErrMalformed, s)
	}
	// Now the bytes, then Complete.
	stop := context.AfterFunc(ctx, func() { m.conn.SetDeadline(time.Unix(1, 0)) })
	n, err := io.CopyN(m.conn, r, size)
	if !stop() {
		return fmt.Errorf("ddi: upload the image: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("ddi: upload the image (%d of %d bytes): %w", n, size, err)
	}
	return m.expect(ctx, "ReceiveBytes", "Complete")
}

// Mount mounts the uploaded image with its ticket and trust cache.
func (m *Mounter) Mount(ctx context.Context, ticket, trustCache []byte) error {
	r, err := m.command(ctx, plist.Dict{
		{Key: "Command", Value: "MountImage"}, {Key: "ImageSignature", Value: ticket},
		{Key: "ImageType", Value: Personalized}, {Key: "ImageTrustCache", Value: trustCache},
	})
	if err != nil {
		return err
	}
	if s := r.String("Status"); s != "Complete" {
		return fmt.Errorf("%w: MountImage answered Status %q", ErrMalformed, s)
	}
	return nil
}

// Signer gets a ticket for a signing request ([TSS] does, over the
// internet).
type Signer interface {
	Sign(ctx context.Context, req plist.Dict) ([]byte, error)
}

// MountImage mounts img on the phone: it asks for the chip's identifiers,
// reuses a ticket the phone still holds for the image or gets a new one
// from signer for the phone's boot nonce, uploads the image and mounts
// it. open opens a new connection to the mounter (a refusal ends one);
// ecid is the phone's UniqueChipID.
func MountImage(ctx context.Context, open func(context.Context) (*Mounter, error), img *Image, ecid uint64, signer Signer) error {
	m, err := open(ctx)
	if err != nil {
		return err
	}
	defer func() { m.Close() }()
	ids, err := m.Identifiers(ctx)
	if err != nil {
		return err
	}
	ids.ECID = ecid
	id, err := img.Identity(ids.BoardID, ids.ChipID)
	if err != nil {
		return err
	}
	path, err := img.ImagePath(id)
	if err != nil {
		return err
	}
	tcPath, err := img.TrustCachePath(id)
	if err != nil {
		return err
	}
	trustCache, err := os.ReadFile(tcPath)
	if err != nil {
		return fmt.Errorf("ddi: the trust cache: %w", err)
	}
	digest, err := Digest(path)
	if err != nil {
		return err
	}
	ticket, err := m.StoredTicket(ctx, digest)
	if err != nil {
		var refused *RefusedError
		if !errors.As(err, &refused) {
			return err
		}
		// None stored: sign this boot's nonce, on a fresh connection.
		m.Close()
		if m, err = open(ctx); err != nil {
			return err
		}
		nonce, err := m.Nonce(ctx)
		if err != nil {
			return err
		}
		if ticket, err = signer.Sign(ctx, TSSRequest(id, ids, nonce, "")); err != nil {
			return err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ddi: the image: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("ddi: the image: %w", err)
	}
	if err := m.Upload(ctx, ticket, f, fi.Size()); err != nil {
		return err
	}
	return m.Mount(ctx, ticket, trustCache)
}
