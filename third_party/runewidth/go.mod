module github.com/mattn/go-runewidth

go 1.21

require github.com/rivo/uniseg v0.2.0
