#!/bin/bash
git -C /app/repo branch --show-current > /app/branch.txt
cat /app/branch.txt
