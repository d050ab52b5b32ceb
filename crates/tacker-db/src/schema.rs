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
    }
}

diesel::table! {
    conductors (id) {
        id -> Text,
        host -> Text,
        state -> Text,
        started_at -> Timestamp,
        last_heartbeat -> Timestamp,
    }
}
