"""Which examples a task is shown: the K most similar to its instruction by BM25, the same for the same instruction."""

import re
from collections.abc import Sequence

from rank_bm25 import BM25Plus

from harness_evo.harness.examples import Example


def words(text: str) -> list[str]:
    """Lowercase runs of letters and digits: `/app/data.csv` gives app, data, csv."""
    return re.findall(r"[a-z0-9]+", text.lower())


def document(example: Example) -> list[str]:
    """What an example is matched on: its instruction, category and tags."""
    return words(" ".join([example.instruction, example.category, *example.tags]))


class ExampleIndex:
    """BM25+ (rank-bm25) over the examples; BM25+ keeps every shared word's weight positive in a corpus of a few files,
    where plain BM25's idf is zero or negative for a word in half of them or more."""

    def __init__(self, examples: Sequence[Example]):
        self.examples = sorted(examples, key=lambda example: example.name)
        self.documents = [document(example) for example in self.examples]
        self.bm25 = BM25Plus(self.documents) if self.examples else None

    def most_similar(self, query: str, k: int) -> list[Example]:
        """The `k` examples that score highest for `query`, ties by name;
        an example sharing no word with it is never chosen."""
        if k == 0 or self.bm25 is None:
            return []
        terms = words(query)
        scores = self.bm25.get_scores(terms)
        shared = set(terms)
        ranked = sorted(
            (
                (float(score), example)
                for score, example, words_of in zip(scores, self.examples, self.documents, strict=True)
                if shared.intersection(words_of)
            ),
            key=lambda pair: (-pair[0], pair[1].name),
        )
        return [example for _, example in ranked[:k]]
