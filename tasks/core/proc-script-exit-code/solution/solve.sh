#!/bin/bash
/app/bin/healthcheck
echo $? > /app/exit_code.txt
cat /app/exit_code.txt
