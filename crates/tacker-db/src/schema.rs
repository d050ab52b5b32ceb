//! Table definitions (kept in step with `migrations/`).

diesel::table! {
    vnf_packages (id) {
        id -> Text,
        onboarding_state -> Text,
        operational_state -> Text,
        usage_state -> Text,
        user_defined_data -> Text,
        vnfd_id -> Nullable<Text>,
        vnf_provider -> Nullable<Text>,
        vnf_product_name -> Nullable<Text>,
        vnf_software_version -> Nullable<Text>,
        vnfd_version -> Nullable<Text>,
        checksum_algorithm -> Nullable<Text>,
        checksum_hash -> Nullable<Text>,
        package_size -> Nullable<BigInt>,
        software_images -> Text,
        additional_artifacts -> Text,
        onboarding_failure_details -> Nullable<Text>,
        downloading -> Integer,
        coordinator_id -> Nullable<Text>,
        revision -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        package_model -> Nullable<Text>,
        progress_at -> Nullable<Timestamp>,
        content_digest -> Nullable<Text>,
        coordinator_incarnation -> Nullable<Text>,
        tenant -> Nullable<Text>,
        upload_scope -> Nullable<Text>,
    }
}

diesel::table! {
    conductors (id) {
        id -> Text,
        host -> Text,
        state -> Text,
        started_at -> Timestamp,
        last_heartbeat -> Timestamp,
        incarnation -> Text,
    }
}

diesel::table! {
    vnf_instances (id) {
        id -> Text,
        vnf_instance_name -> Nullable<Text>,
        vnf_instance_description -> Nullable<Text>,
        vnfd_id -> Text,
        vnf_pkg_id -> Text,
        vnf_provider -> Text,
        vnf_product_name -> Text,
        vnf_software_version -> Text,
        vnfd_version -> Text,
        instantiation_state -> Text,
        instantiated_vnf_info -> Nullable<Text>,
        vim_connection_info -> Text,
        metadata -> Text,
        extensions -> Text,
        vnf_configurable_properties -> Text,
        current_op_id -> Nullable<Text>,
        revision -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        synced_at -> Nullable<Timestamp>,
        instantiate_params -> Nullable<Text>,
        tenant -> Nullable<Text>,
    }
}

diesel::table! {
    vnf_lcm_op_occs (id) {
        id -> Text,
        vnf_instance_id -> Text,
        operation -> Text,
        operation_state -> Text,
        state_entered_time -> Timestamp,
        start_time -> Timestamp,
        is_automatic_invocation -> Bool,
        is_cancel_pending -> Bool,
        operation_params -> Text,
        error -> Nullable<Text>,
        resource_changes -> Nullable<Text>,
        changed_info -> Nullable<Text>,
        changed_ext_connectivity -> Nullable<Text>,
        grant_id -> Nullable<Text>,
        conductor_id -> Nullable<Text>,
        revision -> BigInt,
        created_at -> Timestamp,
        request -> Nullable<Text>,
        checkpoint -> Nullable<Text>,
        runner_incarnation -> Nullable<Text>,
        tenant -> Nullable<Text>,
        cancel_mode -> Nullable<Text>,
    }
}

diesel::table! {
    lccn_subscriptions (id) {
        id -> Text,
        callback_uri -> Text,
        filter -> Text,
        authentication -> Nullable<Text>,
        verbosity -> Text,
        created_at -> Timestamp,
        api_version -> Text,
        tenant -> Nullable<Text>,
        scope -> Nullable<Text>,
    }
}

diesel::table! {
    notification_outbox (seq) {
        seq -> BigInt,
        subscription_id -> Text,
        notification_id -> Text,
        payload -> Text,
        attempts -> Integer,
        next_attempt_at -> Timestamp,
        claimed_by -> Nullable<Text>,
        claimed_until -> Nullable<Timestamp>,
        last_error -> Nullable<Text>,
        delivered_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    vims (id) {
        id -> Text,
        name -> Text,
        description -> Text,
        vim_type -> Text,
        auth_url -> Text,
        vim_project -> Text,
        auth_cred -> Text,
        extra -> Text,
        is_default -> Bool,
        tenant_id -> Text,
        created_at -> Timestamp,
        updated_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    ssh_host_keys (vnf_instance_id, vnfc_id) {
        vnf_instance_id -> Text,
        vnfc_id -> Text,
        address -> Text,
        public_key -> Text,
        pinned_at -> Timestamp,
    }
}

diesel::table! {
    package_downloads (package_id, conductor_id) {
        package_id -> Text,
        conductor_id -> Text,
        incarnation -> Text,
        confirmed_at -> Timestamp,
    }
}

diesel::table! {
    pkgm_subscriptions (id) {
        id -> Text,
        callback_uri -> Text,
        filter -> Text,
        authentication -> Nullable<Text>,
        created_at -> Timestamp,
        scope -> Nullable<Text>,
        tenant -> Nullable<Text>,
    }
}

diesel::table! {
    alarms (id) {
        id -> Text,
        vnf_instance_id -> Text,
        fingerprint -> Text,
        tenant -> Nullable<Text>,
        body -> Text,
        cleared_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    fm_subscriptions (id) {
        id -> Text,
        callback_uri -> Text,
        filter -> Text,
        authentication -> Nullable<Text>,
        scope -> Nullable<Text>,
        tenant -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    auto_heals (vnf_instance_id, vnfc_id) {
        vnf_instance_id -> Text,
        vnfc_id -> Text,
        received_at -> Timestamp,
        due_at -> Timestamp,
        op_occ_id -> Nullable<Text>,
    }
}

diesel::table! {
    auto_scales (id) {
        id -> Text,
        vnf_instance_id -> Text,
        aspect_id -> Text,
        direction -> Text,
        received_at -> Timestamp,
        due_at -> Timestamp,
        op_occ_id -> Nullable<Text>,
    }
}

diesel::table! {
    pm_jobs (id) {
        id -> Text,
        tenant -> Nullable<Text>,
        body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    pm_reports (id) {
        id -> Text,
        job_id -> Text,
        body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    pm_thresholds (id) {
        id -> Text,
        tenant -> Nullable<Text>,
        body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    sim_faults (op_occ_id, step) {
        op_occ_id -> Text,
        step -> Text,
        failures -> Integer,
    }
}
