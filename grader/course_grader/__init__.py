"""Instructor batch grader of the CUDA shared-memory course. Entry point: grader/grade.py; docs: docs/grader.md."""
