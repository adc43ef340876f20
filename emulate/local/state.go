package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/executor"
)

// The files of Options.State, one per part of the stack.
const (
	stateSQS        = "sqs.json"
	stateDynamoDB   = "dynamodb.json"
	stateExecutions = "executions.json"
)

// newExecutor makes the stack's executor with opts, or restores it from
// Options.State's executions, its clock continuing where the stopped
// stack's was (the snapshot's takenAt), so a restored Wait ends when it
// would have.
func (s *Stack) newExecutor(opts executor.Options) (*executor.Executor, error) {
	var e *executor.Executor
	found, err := s.restoreFrom(stateExecutions, func(r io.Reader) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		var head struct {
			TakenAt time.Time `json:"takenAt"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return err
		}
		if opts.Scaled, err = clock.NewScaledFrom(opts.Scaled.Scale(), head.TakenAt, nil); err != nil {
			return err
		}
		s.opts.Scaled = opts.Scaled
		e, err = executor.Restore(bytes.NewReader(data), opts)
		return err
	})
	if err != nil || found {
		return e, err
	}
	return executor.New(opts), nil
}

// restoreFrom reads the part of Options.State in file with restore; false
// when the directory holds none yet (a first start).
func (s *Stack) restoreFrom(file string, restore func(io.Reader) error) (bool, error) {
	if s.opts.State == "" {
		return false, nil
	}
	path := filepath.Join(s.opts.State, file)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("local: state: %w", err)
	}
	defer f.Close()
	if err := restore(f); err != nil {
		return false, fmt.Errorf("local: state %s: %w", path, err)
	}
	return true, nil
}

// saveTo writes a part of the stack into Options.State's file with save,
// synced and then renamed into place, so a crash while saving leaves the
// previous file whole. (The three files are not saved as one: a failure
// between them leaves parts of two stops.)
func (s *Stack) saveTo(file string, save func(io.Writer) error) error {
	if err := os.MkdirAll(s.opts.State, 0o700); err != nil {
		return fmt.Errorf("local: state: %w", err)
	}
	path := filepath.Join(s.opts.State, file)
	tmp, err := os.CreateTemp(s.opts.State, file+".*")
	if err != nil {
		return fmt.Errorf("local: state: %w", err)
	}
	err = save(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("local: state %s: %w", path, err)
	}
	return nil
}

// save writes the stack's state into Options.State: the executions, the
// queues and the table. Call it once the executor's loop has stopped.
func (s *Stack) save() error {
	if s.opts.State == "" {
		return nil
	}
	errs := []error{s.saveTo(stateExecutions, s.Executor.Snapshot), s.saveTo(stateSQS, s.SQSServer.Snapshot)}
	if s.dynamo != nil && s.dynamo.local != nil {
		errs = append(errs, s.saveTo(stateDynamoDB, s.dynamo.local.Snapshot))
	}
	return errors.Join(errs...)
}
