package org.vtvr.http;

import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a mode's resource: each endpoint runs bound to its request's {@link Arrival} ({@link ServedInterceptor}), so its
 * deadline counts from arrival and, where the request has a thread of its own, a hang-up interrupts that thread.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Served {
}
