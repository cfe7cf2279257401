"""Reading the line formats: the readers (formats), their line cutting (lines), their notes.

Light on purpose: a Parquet job imports the notes, and must not load pyarrow or NumPy with
the line formats' readers.
"""
