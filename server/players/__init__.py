"""People across games: player identities (an id and a secret key, no password), each
player's games, ratings from rated games, and the matchmaking queue. All of it lives in
Redis beside the event streams; what can be derived from the streams (the games index, the
ratings) is written after the events, as projections that can be rebuilt."""
