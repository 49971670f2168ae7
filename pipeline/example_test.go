package pipeline_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

func ExamplePipeline_CompactAlgorithmic() {
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		panic(err)
	}
	var log strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&log, "2024-05-01 10:00:%02d INFO [worker-1] job %d done in %dms\n", i%60, 1000+i, i%40)
	}
	log.WriteString("2024-05-01 10:03:20 ERROR [worker-1] job 1200 failed: /data/in.csv: no such file\n")
	res, err := p.CompactAlgorithmic(context.Background(), log.String())
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(res.Text, "no such file"), res.Report.Ratio() < 0.1, res.Report.Guard)
	// Output: true true kept result
}

func ExamplePipeline_Describe() {
	cfg := pipeline.DefaultConfig()
	cfg.Mode = stages.ModeHybrid
	p, _ := pipeline.New(cfg, stages.Deps{})
	d := p.Describe(true, "")
	for _, n := range d.Nodes {
		if !n.WillRun {
			fmt.Printf("%s: %s\n", n.Key, n.Reason)
		}
	}
	// Output:
	// stopwords: disabled in config
	// redact: disabled in config
	// llm_summary: disabled in config
}
