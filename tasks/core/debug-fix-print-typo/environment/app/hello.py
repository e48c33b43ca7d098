"""Greets the team at the start of the day."""

TEAM = "team"


def main():
    pritn(f"Good morning, {TEAM}!")


if __name__ == "__main__":
    main()
