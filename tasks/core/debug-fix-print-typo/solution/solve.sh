#!/bin/bash
sed -i 's/pritn/print/' /app/hello.py
python3 /app/hello.py
