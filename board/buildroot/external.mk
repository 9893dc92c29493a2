include $(sort $(wildcard $(BR2_EXTERNAL_STACKBOX_PATH)/package/*/*.mk))
