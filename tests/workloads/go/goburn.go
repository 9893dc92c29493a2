// SPDX-License-Identifier: GPL-2.0
//
// Ground truth for Go symbolisation: goAlpha does twice the work of
// goBeta in every round, so a CPU profile must give them 2:1. Work, not
// time: on a loaded machine both slow down alike.
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
	}
}
