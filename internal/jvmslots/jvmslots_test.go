package jvmslots

import (
	"os"
	"testing"
	"time"
)

// Two slots are taken at once; a third taker waits until one is freed.
func TestAcquireWaitsForAFreeSlot(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if first.Name() == second.Name() {
		t.Fatalf("both takers hold %s", first.Name())
	}
	got := make(chan *os.File)
	go func() {
		f, err := Acquire(dir, 2)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	select {
	case f := <-got:
		f.Close()
		t.Fatal("a third taker got a slot while both were held")
	case <-time.After(3 * poll):
	}
	first.Close()
	select {
	case f := <-got:
		defer f.Close()
		if f.Name() != first.Name() {
			t.Errorf("the third taker holds %s, want the freed %s", f.Name(), first.Name())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the third taker never got the freed slot")
	}
}
