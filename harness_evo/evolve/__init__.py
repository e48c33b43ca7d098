"""Evolution: proposer, critic, the acceptance gate, the search tree and the loop that ties them."""
