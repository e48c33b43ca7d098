"""Shared test set-up."""

import signal

# A test run started in the background (`cmd &` in a script) inherits SIGINT as ignored, and so would every
# process it starts; the Ctrl-C tests need the ordinary behaviour back.
signal.signal(signal.SIGINT, signal.default_int_handler)
