"""The `trellis` command: run MPI programs with Trellis' collectives underneath, and
list and explain the algorithms and schedules of the C library (through `trellis-info`)."""

__version__ = "0.1.0"
