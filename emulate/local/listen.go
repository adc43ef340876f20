package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long Close lets requests in flight finish.
const shutdownGrace = 5 * time.Second

// server is one HTTP server of a stack serving on sockets.
type server struct {
	// Addr is the address it listens on, with the port picked.
	Addr string
	// URL is how a client on this machine reaches it.
	URL string
	srv *http.Server
}

// listen serves h on addr; what names the server in errors.
func listen(what, addr string, h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("local: listen for %s on %s: %w", what, addr, err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	host := bound.IP.String()
	if bound.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	s := &server{
		Addr: bound.String(),
		URL:  "http://" + net.JoinHostPort(host, fmt.Sprint(bound.Port)),
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
	}
	go func() { _ = s.srv.Serve(ln) }() // returns ErrServerClosed on close
	return s, nil
}

// close stops the server, letting requests in flight finish for a while.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return s.srv.Close()
}
