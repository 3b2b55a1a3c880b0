//! CUDA semantics of the kernel language, checked against independent host
//! computations on the backend of the process (the CPU backend, or CUDA under
//! `GPUJIT_BACKEND=cuda`), and (where the point is the emitted C) on the text
//! of `cuda_source()`. Tests of what only the CPU backend does (per-thread
//! `KernelFault` reports for out-of-bounds indices, ÷0 and `step_by(0)`, the
//! CPU time limit) need `Tool::CpuBackend`: on CUDA an out-of-bounds access
//! or ÷0 is undefined and a trap is a sticky fault for the whole process.

use crate::kernels;
use kernels::control::{
    early_returns, match_i32, match_u8_bool_loop, match_with_barrier, rev_barrier_sum, rev_i32, rev_u8, rev_usize,
    tuple_values,
};
use kernels::types::{
    bool_arrays, cast_small, small_scalars, small_shared_and_views, tuple_locals, tuple_params, wrap_i16, wrap_i8,
    wrap_u16,
};
use kernels::*;

use crate::common;
use common::{fault_of, Tool};

use gpujit::{to_device, zeros, DeviceArray, DeviceScalar, Error};

mod casts;
mod control;
mod faults;
mod index;
mod ints;
mod launches;
mod math;
mod shared;
mod types;

use casts::*;
use control::*;
use faults::*;
use index::*;
use ints::*;
use launches::*;
use math::*;
use shared::*;
use types::*;

/// The tests of this folder, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, cpu) = (None, Some(Tool::CpuBackend));
    cases![
        any => all_lists_every_kernel_once_with_its_cuda_entry,
        any => grid1_is_computed_in_64_bits,
        any => grid3_gridsize3_and_index_fields,
        any => grid2_tuple_and_gridsize2,
        any => unsuffixed_float_literal_takes_the_rust_type,
        any => i32_arithmetic_wraps,
        any => u32_arithmetic_wraps,
        any => u8_arithmetic_wraps,
        any => i8_i16_u16_arithmetic_wraps_like_rust,
        any => small_int_casts_saturate_and_wrap_like_rust,
        any => small_scalar_parameters,
        any => bool_arrays_in_out_and_shared,
        any => small_shared_arrays_and_views,
        any => side_effects_run_left_to_right,
        any => assignments_evaluate_the_value_before_the_index,
        any => tuple_locals_fields_and_destructuring,
        any => tuples_as_device_function_arguments,
        any => i64_and_u64_arithmetic_wraps,
        any => float_to_int_casts_saturate_like_rust,
        any => int_to_int_and_int_to_float_casts,
        any => signed_division_truncates_and_min_by_minus_one_wraps,
        any => unsigned_division,
        cpu => division_by_zero_is_a_kernel_fault_naming_the_thread,
        cpu => out_of_bounds_write_is_a_fault_with_coordinates,
        cpu => out_of_bounds_read_is_a_fault,
        cpu => out_of_bounds_2d_index_faults_per_axis,
        cpu => first_fault_is_the_lowest_block_then_thread_and_all_are_counted,
        cpu => shared_array_out_of_bounds_is_a_fault,
        cpu => step_by_zero_is_a_fault,
        cpu => a_zero_step_faults_only_its_own_thread,
        cpu => fault_counts_are_exact,
        any => fault_kernels_without_a_fault_give_the_rust_results,
        any => range_loops_match_rust_including_ends_at_max,
        any => step_by_over_the_whole_range_does_not_overflow,
        any => step_by_wider_than_the_loop_type,
        any => while_loop_break_continue,
        any => early_return_skips_the_rest,
        any => if_chains_if_expressions_shadowing_and_constants,
        any => three_d_arrays_index_dim_shape_len,
        any => math_methods_match_the_host_within_a_few_ulps,
        any => integer_min_max_abs,
        any => scalar_parameters_of_every_type,
        any => block_reduction_with_shared_memory_and_barriers,
        any => two_d_shared_tile_transpose,
        any => three_d_shared_array_sees_other_threads_writes,
        any => mut_arguments_carry_over_between_launches,
        any => loops_over_outside_constants,
        any => match_on_integers_and_bool_matches_rust,
        any => match_arms_with_barriers,
        any => rev_loops_match_rust,
        any => rev_loops_with_barriers,
        cpu => rev_step_by_zero_is_a_fault,
        any => tuples_as_values,
        any => device_functions_return_values_early,
        cpu => faults_print_nothing,
        cpu => arithmetic_on_outside_constants_wraps_and_faults,
        cpu => run_away_kernels_stop_at_the_time_limit,
        cpu => a_time_limit_leaves_finishing_kernels_alone,
    ]
}

// ---------------------------------------------------------------- helpers

fn dev<T: DeviceScalar>(v: &[T]) -> DeviceArray<T> {
    to_device(v).unwrap()
}

fn host<T: DeviceScalar>(a: &DeviceArray<T>) -> Vec<T> {
    a.copy_to_host().unwrap()
}

/// Distance in units in the last place between two finite f64s (NaN == NaN).
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.signum() != b.signum() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.signum() != b.signum() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits()) as u64
}
