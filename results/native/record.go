package native

import "github.com/rubricgate/rubricgate/record"

// The records other tools' readers produce and the one input error live in
// package record, which package formats writes without importing this
// package; these are their names here.
type (
	// Records is record.Records: a results input already decoded from
	// another tool's output.
	Records = record.Records
	// RecordsWarner is record.RecordsWarner.
	RecordsWarner = record.RecordsWarner
	// Record is record.Record: one judged item as another tool writes it.
	Record = record.Record
	// Sample is record.Sample.
	Sample = record.Sample
	// Metric is record.Metric.
	Metric = record.Metric
	// Direction is record.Direction.
	Direction = record.Direction
	// InputError is record.InputError: bad input at a position in an input
	// file.
	InputError = record.InputError
)

// The directions (record.Direction).
const (
	DirectionAssumed = record.DirectionAssumed
	HigherIsBetter   = record.HigherIsBetter
	LowerIsBetter    = record.LowerIsBetter
)
