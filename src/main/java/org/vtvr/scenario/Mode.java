package org.vtvr.scenario;

/** The three execution models; each is also the first path segment of its endpoints. */
public enum Mode {
    VIRTUAL, WORKER, REACTIVE;

    public String path() {
        return name().toLowerCase();
    }
}
