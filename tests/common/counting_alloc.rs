//! A global allocator that counts allocations (and reallocations) while `COUNTING` is set,
//! for the tests that prove a hot path allocates nothing. Each test binary installs it with
//! `#[global_allocator] static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;`.
//! Allocations on every thread count, unless a test measures one thread's path with
//! [`count_this_thread_only`] (the test harness's own threads then do not count: on a
//! loaded machine its main thread allocated while a single-threaded test measured).

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Only threads marked by [`count_this_thread_only`] count.
static ONLY_MARKED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static MARKED: Cell<bool> = const { Cell::new(false) };
}

/// From now on only allocations made on the calling thread are counted.
pub fn count_this_thread_only() {
    MARKED.with(|m| m.set(true));
    ONLY_MARKED.store(true, Ordering::SeqCst);
}

fn counts() -> bool {
    COUNTING.load(Ordering::Relaxed)
        && (!ONLY_MARKED.load(Ordering::Relaxed) || MARKED.try_with(Cell::get).unwrap_or(false))
}

/// Counts allocations while [`COUNTING`] is true.
pub struct Counting;

/// Turns counting on and off.
pub static COUNTING: AtomicBool = AtomicBool::new(false);
/// Allocations and reallocations counted so far.
pub static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counts() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counts() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
