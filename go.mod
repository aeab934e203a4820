module github.com/picketdev/picket

go 1.26.0
