/** The in-process backend and a manual clock for deterministic tests. */
package dev.sluice.limiter.local;
