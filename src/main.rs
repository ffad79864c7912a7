fn main() {
    brokerlab_app::mount();
}
