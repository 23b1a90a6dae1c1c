/** A Caffeine-backed local pre-check in front of any limiter: exact refusals, or opt-in local allowances. */
module dev.sluice.prefilter {
    requires transitive dev.sluice.limiter;
    requires com.github.benmanes.caffeine;

    exports dev.sluice.prefilter;
}
