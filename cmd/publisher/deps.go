package main

import (
	"context"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/stages"
)

// buildDeps wires the outside services nodes may call. The publisher's
// in-process runs cache LLM summaries in memory.
func buildDeps(_ context.Context, file config.File) (stages.Deps, error) {
	summarizer, err := llm.New(file.LLM)
	if err != nil {
		return stages.Deps{}, err
	}
	return stages.Deps{Summarizer: summarizer}, nil
}
