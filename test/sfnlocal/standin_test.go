package sfnlocal

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
	"github.com/redrive/redrive/emulate/loopback"
)

// standIn is the project's executor playing Step Functions Local for the
// self-test: on a scaled clock, Waits divided by the time scale, Task
// resources invoked on the Lambda server over HTTP as LAMBDA_ENDPOINT
// makes Step Functions Local do.
type standIn struct {
	URL  string
	srv  *http.Server
	stop context.CancelFunc
	done chan struct{}
}

// startStandIn serves the stand-in on a free loopback port; its Task
// states go to lambdaServer.
func startStandIn(clk *clock.Scaled, lambdaServer executor.Invoker) (*standIn, error) {
	exec := executor.New(executor.Options{Invoker: lambdaServer, Scaled: clk, Region: region})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &standIn{
		URL:  "http://" + ln.Addr().String(),
		srv:  &http.Server{Handler: sfnapi.NewServer(exec), ReadHeaderTimeout: 10 * time.Second},
		stop: stop,
		done: make(chan struct{}),
	}
	go func() { _ = s.srv.Serve(ln) }() // returns ErrServerClosed on close
	go func() {
		defer close(s.done)
		_ = exec.Run(ctx) // returns ctx's error on close
	}()
	return s, nil
}

// close stops the executor and its server.
func (s *standIn) close() error {
	s.stop()
	<-s.done
	return s.srv.Close()
}

// lateInvoker invokes functions on a Lambda server whose address is known
// only once the stack has started it; the stand-in creates state
// machines before that, and invokes nothing until then.
type lateInvoker struct {
	mu   sync.Mutex
	next executor.Invoker
}

var _ executor.Invoker = (*lateInvoker)(nil)

// connect points the invoker at the Lambda server at url.
func (l *lateInvoker) connect(url string) {
	client := lambda.New(lambda.Options{HTTPClient: loopback.NewHTTPClient(), Region: region, BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	l.mu.Lock()
	l.next = lambdaapi.NewInvoker(client)
	l.mu.Unlock()
}

// Invoke implements executor.Invoker.
func (l *lateInvoker) Invoke(ctx context.Context, function string, payload []byte) (executor.Invocation, error) {
	l.mu.Lock()
	next := l.next
	l.mu.Unlock()
	if next == nil {
		return executor.Invocation{}, errors.New("sfnlocal: invoked before the Lambda server started")
	}
	return next.Invoke(ctx, function, payload)
}
