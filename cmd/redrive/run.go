package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/redrive/redrive/emulate/sim"
)

// runOptions are the run command's flags.
type runOptions struct {
	scenario   string // file; "" means sim.Default
	report     string // HTML report path; "" means reportPath's default
	json       string // where to write the figures as JSON; "" means nowhere
	progress   bool   // draw the progress bar even when stderr is no terminal
	invokeAPI  bool   // Redrive calls the consumer through the Lambda Invoke API wire format
	cpuProfile string // where to write a CPU profile of the run; "" means none
	memProfile string // where to write a heap profile at the end of the run; "" means none
	maxMemory  string // the memory budget; "" means a share of the machine's
}

// runRun plays a scenario with Redrive and the two baselines, prints the
// breaker's state changes as they happen and the table at the end, and
// writes the HTML report, and the table's figures as JSON if asked.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, code, ok := parseRun(args, stderr)
	if !ok {
		return code
	}
	s := sim.Default()
	if opts.scenario != "" {
		var err error
		if s, err = sim.Load(opts.scenario); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(stderr, "redrive run: -scenario %s: no such file (the project's scenarios are in its scenarios/ folder)\n", opts.scenario)
				return exitUsage
			}
			fmt.Fprintf(stderr, "redrive run: %v\n", err)
			if errors.Is(err, sim.ErrInvalidScenario) {
				return exitUsage
			}
			return exitFailure
		}
	}
	budget, err := memoryBudget(opts.maxMemory)
	if err != nil {
		fmt.Fprintf(stderr, "redrive run: %v\n", err)
		return exitUsage
	}
	stopProfile, err := startCPUProfile(opts.cpuProfile)
	if err != nil {
		fmt.Fprintf(stderr, "redrive run: %v\n", err)
		return exitFailure
	}
	console := &sim.Console{Lines: stdout, Horizon: s.Horizon}
	if opts.progress || isTerminal(stderr) {
		console.Bar = stderr
	} else {
		console.Log = stderr // a line every half minute on long runs
	}
	fmt.Fprintf(stdout, "redrive run: scenario %q, strategies redrive, naive backoff and bulk move on the same virtual timeline\n", s.Name)
	playCtx, stopWatch := withMemoryBudget(ctx, budget)
	res, err := sim.Play(playCtx, s, sim.Strategies(opts.invokeAPI, os.Getenv(envDynamoDBEndpoint)), console)
	console.Done()
	over, stopped := overBudget(playCtx)
	stopWatch()
	err = errors.Join(err, stopProfile(), writeHeapProfile(opts.memProfile))
	if stopped {
		fmt.Fprintf(stderr, "redrive run: stopped: %v.\n  So far: %s\n  Give the run more memory with -max-memory, or play a smaller scenario.\n", over, console.Status())
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "redrive run: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(stdout)
	if err := sim.WriteTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "redrive run: %v\n", err)
		return exitFailure
	}
	path, err := writeReport(opts.report, res)
	if err != nil {
		fmt.Fprintf(stderr, "redrive run: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "Report: %s\n", path)
	if opts.json != "" {
		if err := createFile(opts.json, "figures", func(w io.Writer) error { return sim.WriteJSON(w, res) }); err != nil {
			fmt.Fprintf(stderr, "redrive run: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stdout, "Figures: %s\n", opts.json)
	}
	return exitOK
}

// parseRun reads the run command's flags, or returns the exit code to stop
// with.
func parseRun(args []string, stderr io.Writer) (opts runOptions, code int, ok bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: redrive run [flags]")
		fmt.Fprintln(fs.Output(), "\nPlays a simulated outage with Redrive (the real orchestrator on the local executor), a naive")
		fmt.Fprintln(fs.Output(), "exponential-backoff redrive and SQS's fixed-rate bulk move, and compares them.")
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.scenario, "scenario", "", "scenario file, YAML or JSON (default: the built-in default, scenarios/default.yaml)")
	fs.StringVar(&opts.report, "report", "", "where to write the HTML report (default: .cache/report-<scenario>.html, or the temp dir)")
	fs.StringVar(&opts.json, "json", "", "also write the table's figures, per strategy, as JSON to this file (see cmd/redrive/README.md)")
	fs.BoolVar(&opts.progress, "progress", false, "draw the progress bar on stderr even when it is not a terminal")
	fs.BoolVar(&opts.invokeAPI, "invoke-api", false, "have Redrive call the consumer through the Lambda Invoke API wire format (slower)")
	fs.StringVar(&opts.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&opts.memProfile, "memprofile", "", "write a heap profile, taken when the strategies end, to this file (go tool pprof)")
	fs.StringVar(&opts.maxMemory, "max-memory", "", "stop the run, with a message and the progress so far, before it holds more memory than this\n(e.g. 6GB, 1500MB; powers of 1024); default: 3/4 of the machine's memory")
	code, ok = parseFlags(fs, args)
	return opts, code, ok
}

// startCPUProfile starts profiling the CPU to path, if any, and returns
// the function that stops it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(fmt.Errorf("cpu profile: %w", err), f.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// writeHeapProfile writes the heap's live objects, after a collection, to
// path, if any.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	runtime.GC()
	return createFile(path, "heap profile", func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) })
}

// writeReport writes the HTML report to path, or by default to
// .cache/report-<scenario>.html under the working directory, falling back
// to the temp dir when .cache cannot be made; it returns where it wrote.
func writeReport(path string, res sim.Result) (string, error) {
	if path == "" {
		name := "report-" + res.Scenario.Name + ".html"
		path = filepath.Join(".cache", name)
		if err := os.MkdirAll(".cache", 0o755); err != nil {
			path = filepath.Join(os.TempDir(), "redrive-"+name)
		}
	}
	if err := createFile(path, "report", func(w io.Writer) error { return sim.WriteHTML(w, res) }); err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// createFile creates path and fills it with write; what names the file
// in errors.
func createFile(path, what string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := write(f); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return nil
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
