package waittest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/openlolo/openlolo/waittest"
)

func TestRequestsRead(t *testing.T) {
	t.Parallel()
	var reqs waittest.Requests
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	srv.Config.ConnState = reqs.ConnState
	srv.Start()
	t.Cleanup(srv.Close) // after the connections close: it waits for the half request
	dial := func() net.Conn {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// A connection that sends nothing has no request read.
	silent := dial()
	if reqs.Read(100*time.Millisecond, silent.LocalAddr()) {
		t.Errorf("Read reported a request on a connection that sent nothing")
	}
	// A request whose headers are in and whose body is not: read.
	half := dial()
	if _, err := io.WriteString(half, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab"); err != nil {
		t.Fatal(err)
	}
	if !reqs.Read(10*time.Second, half.LocalAddr()) {
		t.Fatalf("Read did not see the headers the server read")
	}
	// Another connection's request does not count for the silent one.
	if reqs.Read(100*time.Millisecond, silent.LocalAddr()) {
		t.Errorf("Read reported another connection's request")
	}
}
