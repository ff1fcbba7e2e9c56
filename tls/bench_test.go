package tls_test

import (
	"crypto/tls"
	"net"
	"testing"

	boxtls "github.com/openlolo/openlolo/tls"
)

// A full TLS handshake with the pinned client config against one with a
// plain InsecureSkipVerify config: the pin check's cost.
func BenchmarkHandshake(b *testing.B) {
	c, err := boxtls.Load(boxtls.Options{Dir: b.TempDir(), Name: "bench", IPs: []net.IP{}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", c.ServerConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { conn.(*tls.Conn).Handshake(); conn.Close() }()
		}
	}()
	pinned, _ := boxtls.ClientConfig(c.SPKIPin())
	for _, bc := range []struct {
		name string
		cfg  *tls.Config
	}{
		{"skip-verify", &tls.Config{InsecureSkipVerify: true}},
		{"pinned", pinned},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				conn, err := tls.Dial("tcp", ln.Addr().String(), bc.cfg)
				if err != nil {
					b.Fatal(err)
				}
				conn.Close()
			}
		})
	}
}
