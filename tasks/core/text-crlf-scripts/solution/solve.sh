#!/bin/bash
sed -i 's/\r$//' /app/scripts/*.sh
