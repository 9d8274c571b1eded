package parser

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	p := os.Getenv("DBG")
	if p == "" {
		t.Skip()
	}
	res, errs := ParseAll([]string{p}, Options{})
	for _, r := range res {
		in := r.Input
		in.Problems = nil
		b, _ := json.Marshal(in)
		fmt.Println(string(b))
		for _, pr := range r.Input.Problems {
			fmt.Println("PROBLEM", pr.Line, pr.Message)
		}
		for _, ev := range r.Events {
			fmt.Printf("%d %s %s vol=%s pv=%s node=%s pod=%s code=%s cnt=%d comp=%s rel=%v\n", ev.Source.Line, ev.Time.Format("2006-01-02T15:04:05.000Z07:00"), ev.Kind, ev.Volume, ev.PV, ev.Node, ev.Pod, ev.Code, ev.Count, ev.Component, ev.Relative)
		}
	}
	fmt.Println(errs)
}
