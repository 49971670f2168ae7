package jetstream

import (
	"cmp"
	"context"
	"fmt"
	"sort"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	njs "github.com/nats-io/nats.go/jetstream"
)

// TaskRequest is what a whole-document task is given.
type TaskRequest struct {
	DocID    string
	Body     []byte
	Mode     stages.Mode
	AllowLLM bool
}

// TaskFunc runs one whole-document task (a debate for the chairman, an
// evidence-balanced summary, a session compaction) and returns its result
// body and per-step reports. Errors wrapping failure.ErrPermanent (a
// malformed request, a model that refused it) go to the dead-letter
// subject; others are retried with backoff.
type TaskFunc func(ctx context.Context, req TaskRequest) ([]byte, []pipeline.NodeReport, error)

// WithTasks gives the worker the functions behind fleet.tasks.
func WithTasks(tasks map[string]TaskFunc) WorkerOption {
	return func(w *Worker) error {
		for name := range tasks {
			if !taskNameRe.MatchString(name) {
				return fmt.Errorf("task name %q: want lower-case letters, digits or _", name)
			}
		}
		w.tasks = tasks
		return nil
	}
}

func (w *Worker) taskBindings() []binding {
	names := make([]string, 0, len(w.tasks))
	for name := range w.tasks {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []binding
	for _, name := range names {
		fn := w.tasks[name]
		out = append(out, binding{
			stream:   w.names.WorkStream(),
			consumer: w.names.TaskConsumer(name),
			label:    "task " + name,
			name:     "task_" + name,
			dead:     w.names.DeadSubject("task_" + name),
			process: func(ctx context.Context, env Envelope, msg njs.Msg) error {
				env, stored, err := w.verifyHop(ctx, env)
				if err != nil {
					return err
				}
				if env, err = entryHop(env); err != nil {
					return err
				}
				body, err := w.body(ctx, env, msg, stages.Key("task_"+name), stored)
				if err != nil {
					return err
				}
				release, err := w.hold(ctx, len(body))
				if err != nil {
					return err
				}
				defer release()
				mode := cmp.Or(env.Mode, w.pipe.Config().Mode)
				out, reports, err := fn(ctx, TaskRequest{DocID: env.DocID, Body: []byte(body), Mode: mode, AllowLLM: env.AllowLLM})
				if err != nil {
					return fmt.Errorf("task %s: %w", name, err)
				}
				env.Mode = mode
				env.Reports = append(env.Reports, reports...)
				return w.publishResult(ctx, env, string(out), "task "+name, "")
			},
		})
	}
	return out
}
