module github.com/rubricgate/rubricgate

go 1.26.0

require (
	github.com/google/go-github/v60 v60.0.0
	github.com/sethvargo/go-githubactions v1.3.0
	golang.org/x/text v0.44.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/rogpeppe/go-internal v1.13.1 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
)
