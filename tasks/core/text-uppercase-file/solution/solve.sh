#!/bin/bash
tr '[:lower:]' '[:upper:]' < /app/quiet.txt > /app/loud.txt
cat /app/loud.txt
