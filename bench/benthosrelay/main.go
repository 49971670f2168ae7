// Command benthosrelay is fleetbench's peer (e): the Benthos stream engine
// relaying documents one hop, from a JetStream stream to a subject bound
// to another, with only Benthos's pure components and a small JetStream
// input and output written against its public plugin API (the open-source
// Benthos core ships no NATS components). Benthos acknowledges an input
// only after the output's Write returned, and Write returns after the
// PubAck: the raw relay's discipline.
//
//	benthosrelay CONFIG.yaml
//
// It prints "ready" once its consumer is bound, and stops on SIGINT or
// SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benthosrelay CONFIG.yaml")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benthosrelay:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	conf, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := register(); err != nil {
		return err
	}
	b := service.NewStreamBuilder()
	if err := b.SetYAML(string(conf)); err != nil {
		return err
	}
	stream, err := b.Build()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = stream.StopWithin(10 * time.Second)
	}()
	if err := stream.Run(context.Background()); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

const msgIDMeta = "nats_msg_id"

func register() error {
	in := service.NewConfigSpec().
		Field(service.NewStringField("url")).
		Field(service.NewStringField("stream")).
		Field(service.NewStringField("consumer")).
		Field(service.NewIntField("pull_batch").Default(64))
	err := service.RegisterInput("jc_jetstream", in, func(c *service.ParsedConfig, _ *service.Resources) (service.Input, error) {
		var r reader
		var err error
		if r.url, err = c.FieldString("url"); err != nil {
			return nil, err
		}
		if r.stream, err = c.FieldString("stream"); err != nil {
			return nil, err
		}
		if r.consumer, err = c.FieldString("consumer"); err != nil {
			return nil, err
		}
		if r.batch, err = c.FieldInt("pull_batch"); err != nil {
			return nil, err
		}
		return service.AutoRetryNacks(&r), nil
	})
	if err != nil {
		return err
	}
	out := service.NewConfigSpec().
		Field(service.NewStringField("url")).
		Field(service.NewStringField("subject")).
		Field(service.NewIntField("max_in_flight").Default(64))
	return service.RegisterOutput("jc_jetstream", out, func(c *service.ParsedConfig, _ *service.Resources) (service.Output, int, error) {
		var w writer
		var err error
		if w.url, err = c.FieldString("url"); err != nil {
			return nil, 0, err
		}
		if w.subject, err = c.FieldString("subject"); err != nil {
			return nil, 0, err
		}
		inFlight, err := c.FieldInt("max_in_flight")
		return &w, inFlight, err
	})
}

// reader pulls from a durable consumer; its AckFunc acks or naks the
// JetStream message once Benthos has delivered it (or failed to).
type reader struct {
	url, stream, consumer string
	batch                 int

	nc   *nats.Conn
	msgs njs.MessagesContext
	once sync.Once
}

func (r *reader) Connect(ctx context.Context) error {
	nc, err := nats.Connect(r.url)
	if err != nil {
		return err
	}
	js, err := njs.New(nc)
	if err != nil {
		nc.Close()
		return err
	}
	cons, err := js.Consumer(ctx, r.stream, r.consumer)
	if err != nil {
		nc.Close()
		return err
	}
	msgs, err := cons.Messages(njs.PullMaxMessages(r.batch))
	if err != nil {
		nc.Close()
		return err
	}
	r.nc, r.msgs = nc, msgs
	r.once.Do(func() { fmt.Println("ready") })
	return nil
}

func (r *reader) Read(ctx context.Context) (*service.Message, service.AckFunc, error) {
	if r.msgs == nil {
		return nil, nil, service.ErrNotConnected
	}
	m, err := r.msgs.Next(njs.NextContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, service.ErrNotConnected
	}
	msg := service.NewMessage(m.Data())
	msg.MetaSet(msgIDMeta, m.Headers().Get(nats.MsgIdHdr))
	return msg, func(_ context.Context, err error) error {
		if err != nil {
			return m.Nak()
		}
		return m.Ack()
	}, nil
}

func (r *reader) Close(context.Context) error {
	if r.msgs != nil {
		r.msgs.Stop()
	}
	if r.nc != nil {
		r.nc.Close()
	}
	return nil
}

// writer publishes each message with its input's message id and returns
// after the PubAck; Benthos runs max_in_flight writes at once.
type writer struct {
	url, subject string

	nc *nats.Conn
	js njs.JetStream
}

func (w *writer) Connect(context.Context) error {
	nc, err := nats.Connect(w.url)
	if err != nil {
		return err
	}
	js, err := njs.New(nc)
	if err != nil {
		nc.Close()
		return err
	}
	w.nc, w.js = nc, js
	return nil
}

func (w *writer) Write(ctx context.Context, msg *service.Message) error {
	data, err := msg.AsBytes()
	if err != nil {
		return err
	}
	out := &nats.Msg{Subject: w.subject, Data: data, Header: nats.Header{}}
	if id, ok := msg.MetaGet(msgIDMeta); ok {
		out.Header.Set(nats.MsgIdHdr, id)
	}
	_, err = w.js.PublishMsg(ctx, out)
	return err
}

func (w *writer) Close(context.Context) error {
	if w.nc != nil {
		w.nc.Close()
	}
	return nil
}
