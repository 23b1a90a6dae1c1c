/**
 * The algorithms as pure functions over {@code long[]} state, and the one codec between a request and the
 * words a backend ships: every backend runs this code, unchanged, where the key's state lives. For backend
 * modules only; not part of the user API.
 */
package dev.sluice.limiter.algorithm;
