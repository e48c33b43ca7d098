#!/bin/bash
name=${1:-world}
echo "hello, $name"
