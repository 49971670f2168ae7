package main

import (
	"context"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/stages"
)

// buildDeps wires the outside services nodes may call.
func buildDeps(_ context.Context, _ config.File) (stages.Deps, error) {
	return stages.Deps{}, nil
}
