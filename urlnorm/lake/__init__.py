"""The lake layer: inputs, object stores, table commits, outputs' runs, seen keys."""
