package owner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/update"
)

// UpdateUploadPath is where the owner uploads an update bundle (a
// multipart form: csrf first, then allow_older, then bundle). The box
// exempts it from the small body limit of other forms; the handler
// bounds it itself.
const UpdateUploadPath = "/settings/update"

// maxBundle bounds an uploaded bundle: the largest root image a manifest
// may list, its boot files and the tar framing.
const maxBundle = 2<<30 + 256<<20

// updateView is the Settings page's update section.
type updateView struct {
	Available bool
	Status    update.Status
	Progress  update.Progress
	Err       string // reading the status failed
	CSRF      string // the forms' token
}

// updateSection fills the update section and reports whether the page
// should reload itself (an install runs).
func (p *Pages) updateSection() (*updateView, bool) {
	if p.cfg.Updater == nil {
		return &updateView{}, false
	}
	v := &updateView{Available: true, Progress: p.cfg.Updater.Progress()}
	st, err := p.cfg.Updater.Status()
	if err != nil {
		v.Err = err.Error()
	}
	v.Status = st
	return v, v.Progress.Active() || v.Progress.State == "rebooting"
}

// updateMessage is the sentence for an update error: its code, then what
// to do.
func updateMessage(err error) string {
	var e *update.Error
	if errors.As(err, &e) {
		return string(e.Code) + ": " + e.Message
	}
	return "The update failed: " + err.Error()
}

// uploadIdle is how long an upload may go without a byte, unless
// Config.UploadIdle says otherwise.
const uploadIdle = 60 * time.Second

func updateStatus(err error) int {
	switch update.CodeOf(err) {
	case update.CodeBusy:
		return http.StatusConflict
	case update.CodeNoSpace:
		return http.StatusInsufficientStorage
	case update.CodeWriteFailed, update.CodeReadBack, update.CodeUnsupported:
		return http.StatusInternalServerError
	case update.CodeFetchFailed:
		return http.StatusBadGateway
	}
	return http.StatusBadRequest
}

// wantsJSON reports whether the client (openlolo update) asked for JSON.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// updateAnswer is the JSON answer of the update endpoints.
type updateAnswer struct {
	Status  string `json:"status"` // "installed", "failed"
	Version string `json:"version,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (p *Pages) updateFailed(w http.ResponseWriter, r *http.Request, err error) {
	p.updateRefused(w, r, updateStatus(err), err)
}

// updateRefused answers an update refused with status. An upload's rest
// is not read (a refused bundle could be 2 GiB): the answer closes the
// connection, and the client reads it as its upload is cut off.
func (p *Pages) updateRefused(w http.ResponseWriter, r *http.Request, status int, err error) {
	if r.URL.Path == UpdateUploadPath {
		w.Header().Set("Connection", "close")
	}
	if wantsJSON(r) {
		writeJSON(w, status, updateAnswer{Status: "failed", Code: string(update.CodeOf(err)), Message: updateMessage(err)})
		return
	}
	p.showSettings(w, r, status, "", updateMessage(err))
}

// updateUpload streams an uploaded bundle into the updater. The route
// table (ownerUpload) checks the session and the Origin; it reads the
// CSRF token as the form's first part itself: the bundle is not buffered.
func (p *Pages) updateUpload(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Updater == nil {
		p.updateRefused(w, r, http.StatusNotFound, &update.Error{Code: update.CodeUnsupported, Message: "This box does not update itself: it does not run from the openlolo SD image, or the image has no update key."})
		return
	}
	if r.ContentLength > maxBundle {
		p.updateRefused(w, r, http.StatusRequestEntityTooLarge, &update.Error{Code: update.CodeTooLarge,
			Message: fmt.Sprintf("The upload is %d bytes; a bundle is at most %d (a root image of 2 GiB, its boot files and the framing). Nothing was read or written.", r.ContentLength, int64(maxBundle))})
		return
	}
	r.Body = p.uploadBody(w, r)
	mr, err := r.MultipartReader()
	if err != nil {
		p.updateFailed(w, r, &update.Error{Code: update.CodeNotBundle, Message: "Send the bundle as the form's file (multipart/form-data).", Err: err})
		return
	}
	var opts update.Options
	csrfOK := false
	for {
		part, err := mr.NextPart()
		if err != nil {
			p.updateFailed(w, r, &update.Error{Code: update.CodeTruncated, Message: "The upload ended before the bundle's file came; nothing was written.", Err: err})
			return
		}
		switch part.FormName() {
		case "csrf":
			v, _ := io.ReadAll(io.LimitReader(part, 256))
			csrfOK = tokenEqual(string(v), sessionToken(r))
		case "allow_older":
			v, _ := io.ReadAll(io.LimitReader(part, 16))
			opts.AllowOlder = string(v) == "1"
		case "bundle":
			if !csrfOK {
				p.message(w, r, http.StatusForbidden, "Form refused",
					"This form's security token is missing or out of date (it must come before the file), so the box did not act on it. Reload the page and try again.", "Back", "/settings")
				return
			}
			if err := p.cfg.Updater.Install(r.Context(), part, opts); err != nil {
				p.updateFailed(w, r, err)
				return
			}
			v := p.cfg.Updater.Progress().Version
			p.log.Info("owner: update installed; the box restarts into it", "version", v)
			if wantsJSON(r) {
				writeJSON(w, http.StatusOK, updateAnswer{Status: "installed", Version: v})
				return
			}
			http.Redirect(w, r, "/settings?done=update", http.StatusSeeOther)
			return
		}
		part.Close()
	}
}

// uploadBody is r's body bounded to maxBundle, with a read deadline that
// follows the upload's progress: the server's read timeout covers a
// whole request, and a slot's bundle over slow Wi-Fi takes minutes. Each
// time bytes arrive the deadline moves to UploadIdle ahead, so only a
// stall fails the upload. Deadlines are on the wall clock (the network's),
// not Config.Now.
func (p *Pages) uploadBody(w http.ResponseWriter, r *http.Request) io.ReadCloser {
	idle := p.cfg.UploadIdle
	if idle <= 0 {
		idle = uploadIdle
	}
	b := &progressBody{ReadCloser: http.MaxBytesReader(w, r.Body, maxBundle), rc: http.NewResponseController(w), idle: idle}
	if err := b.push(time.Now()); err != nil {
		p.log.Warn("owner: the upload's read deadline cannot follow its progress; the server's read timeout bounds it", "err", err)
	}
	return b
}

// progressBody moves the connection's read deadline idle ahead as bytes
// arrive (at most every idle/8, so the stall allowed is 7/8 idle to idle).
type progressBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	idle   time.Duration
	pushed time.Time
	off    bool // the connection has no read deadline to move
}

func (b *progressBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if now := time.Now(); n > 0 && !b.off && now.Sub(b.pushed) >= b.idle/8 {
		b.push(now)
	}
	return n, err
}

func (b *progressBody) push(now time.Time) error {
	b.pushed = now
	if err := b.rc.SetReadDeadline(now.Add(b.idle)); err != nil {
		b.off = true
		return fmt.Errorf("owner: move the upload's read deadline: %w", err)
	}
	return nil
}

// updateURL has the box fetch a bundle; the install runs in the
// background and the Settings page shows its progress.
func (p *Pages) updateURL(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Updater == nil {
		p.updateFailed(w, r, &update.Error{Code: update.CodeUnsupported, Message: "This box does not update itself."})
		return
	}
	raw := strings.TrimSpace(r.PostFormValue("url"))
	opts := update.Options{AllowOlder: r.PostFormValue("allow_older") == "1"}
	if pr := p.cfg.Updater.Progress(); pr.Active() {
		p.updateFailed(w, r, &update.Error{Code: update.CodeBusy, Message: "Another update is running now; its progress is below."})
		return
	}
	ctx := context.WithoutCancel(r.Context())
	go func() {
		if err := p.cfg.Updater.Fetch(ctx, raw, opts); err != nil {
			p.log.Warn("owner: update from a URL failed", "err", err)
		}
	}()
	http.Redirect(w, r, "/settings?done=fetching", http.StatusSeeOther)
}

// updateProgress is the install's progress as JSON (openlolo update).
func (p *Pages) updateProgress(w http.ResponseWriter, r *http.Request) {
	if p.cfg.Updater == nil {
		writeJSON(w, http.StatusNotFound, updateAnswer{Status: "failed", Code: string(update.CodeUnsupported), Message: "This box does not update itself."})
		return
	}
	pr := p.cfg.Updater.Progress()
	out := struct {
		State   string `json:"state"`
		Version string `json:"version,omitempty"`
		Done    int64  `json:"done"`
		Total   int64  `json:"total"`
		Code    string `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}{State: pr.State, Version: pr.Version, Done: pr.Done, Total: pr.Total}
	if pr.Err != nil {
		out.Code, out.Message = string(pr.Err.Code), updateMessage(pr.Err)
	}
	writeJSON(w, http.StatusOK, out)
}
