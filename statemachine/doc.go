// Package statemachine holds the project's Amazon States Language
// definitions, embedded, and renders them: "${Name}" placeholders (the
// same syntax as Step Functions' DefinitionSubstitutions) are replaced by
// function ARNs, and every placeholder must be given exactly once.
//
// redrive.asl.json orchestrates one dead-lettered message (Attempt, Route,
// Cooldown, Continue, Park); admin.asl.json runs an operator's command.
package statemachine
