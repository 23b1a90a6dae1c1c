package dev.sluice.limiter;

import java.util.AbstractList;

/**
 * {@link LimitSpec#ALGORITHMS}: the catalogue's names, read when asked. A list made when {@link LimitSpec} is
 * initialized could not be, since the algorithms' descriptions refer to {@link LimitSpec}'s own constants.
 */
final class AlgorithmNames extends AbstractList<String> {
    @Override
    public String get(int index) {
        return AlgorithmDescription.all().get(index).name();
    }

    @Override
    public int size() {
        return AlgorithmDescription.all().size();
    }
}
