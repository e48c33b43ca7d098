. ./notify.inc
notify_all "nightly jobs finished"
