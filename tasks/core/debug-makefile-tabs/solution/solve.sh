#!/bin/bash
sed -i 's/^    /\t/' /app/Makefile
make -C /app
