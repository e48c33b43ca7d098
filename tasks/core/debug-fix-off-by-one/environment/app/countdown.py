"""Counts down from N to 1, then announces liftoff. Usage: python3 countdown.py N"""

import sys


def countdown(start):
    for number in range(start, 1, -1):
        print(number)
    print("Liftoff!")


if __name__ == "__main__":
    countdown(int(sys.argv[1]))
