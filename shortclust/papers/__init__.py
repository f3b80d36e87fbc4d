"""One module per reproduced paper: its reported numbers and how each table/figure is rebuilt."""
