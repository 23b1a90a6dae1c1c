/**
 * A local pre-filter in front of any limiter: {@link dev.sluice.prefilter.LocalPrefilter#wrap} answers in
 * this process what the store would refuse anyway (the exact refusal cache, the default) and, opt-in,
 * spends permits taken from the store in batches (the local allowance).
 */
package dev.sluice.prefilter;
