// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for Go symbolisation: goAlpha does twice the work of
// goBeta in every round, so a CPU profile must give them 2:1. Work, not
// time: on a loaded machine both slow down alike. goGamma does as much
// work as the other two together (half the samples), two thirds of it
// in mix, which the compiler inlines into it (go build -gcflags=-m says
// "inlining call to mix"): a profile that expands inlined calls gives
// goGamma;mix 2:1 against goGamma's own loop.
//
//	goburn [SECONDS]	default 3
package main

import (
	"os"
	"strconv"
	"time"
)

var sink uint64

// spin is one unit of work; kept out of line so each caller's samples
// end in it below that caller's frame.
//
//go:noinline
func spin(n int) {
	s := sink
	for i := 0; i < n; i++ {
		s = s*6364136223846793005 + 1442695040888963407
	}
	sink = s
}

//go:noinline
func goAlpha(n int) { spin(2 * n) }

//go:noinline
func goBeta(n int) { spin(n) }

// mix is one unit of work small enough to be inlined: a loop and no
// call, the same loop as goGamma's own.
func mix(s uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		s = s*6364136223846793005 + 1442695040888963407
	}
	return s
}

//go:noinline
func goGamma(n int) {
	own := n / 3
	s := mix(sink, 2*own)
	for i := 0; i < own; i++ {
		s = s*6364136223846793005 + 1442695040888963407
	}
	store(s)
}

// store keeps goGamma from being a leaf: a Go function that calls
// nothing sets up no frame, and a frame-pointer walk from inside it
// skips its caller.
//
//go:noinline
func store(s uint64) { sink = s }

func main() {
	secs := 3.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for time.Now().Before(end) {
		goAlpha(200000)
		goBeta(200000)
		goGamma(600000)
	}
}
