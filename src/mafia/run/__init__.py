"""What a run is given and keeps: its runtime context, its inputs and settings, the game file, its
record of models and people, and its traces."""
