package jetstream

import "errors"

var errSimulatedCrash = errors.New("simulated crash between publish and ack")
