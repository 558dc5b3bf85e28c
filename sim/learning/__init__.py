"""The learned agent's training: the search as teacher (`teacher`), fitting the network
(`fit`), and the rounds of expert iteration (`train`)."""
