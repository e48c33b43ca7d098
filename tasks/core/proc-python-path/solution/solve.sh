#!/bin/bash
which python3 > /app/python_path.txt
cat /app/python_path.txt
